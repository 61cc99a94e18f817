#!/usr/bin/env python3
"""Writes ../rag_formats_dev_ko.jsonl (40 items). The items are hand-written; this
script only keeps them in one place and numbers them. build.py checks every answer / evidence."""
import json
from pathlib import Path

HWPX = "hangyeol_infosec_guideline.hwpx"
HWP = "hannuri_rnd_expense_guideline.hwp"
SCAN = "daon_remote_work_rules_scan.pdf"
DOCX = "hangyeol_pyeongtaek_logistics_automation_plan.docx"
B1 = "별표 1 정보자산 보안등급별 관리기준"
B2 = "별표 2 보안사고 유형별 보고 기한"

# (file, kind, question, answer, pages, location, evidence)
A = [
    # ---- HWPX: 정보보안 관리지침 (주식회사 한결정밀) -------------------------------------------------------
    (HWPX, "ko", "비번 몇 자리 이상으로 만들어야 돼요?", "10자리 이상", [], "제6조",
     "제6조(비밀번호 관리) ① 정보시스템의 비밀번호는 영문 대문자, 영문 소문자, 숫자, 특수문자 중 3종류 이상을 조합하여 "
     "10자리 이상으로 설정하여야 한다."),
    (HWPX, "ko", "퇴사한 사람 계정은 언제 지워지나요?", "퇴직일 당일", [], "제7조",
     "② 인사팀은 임직원의 퇴직, 휴직 또는 전보가 확정되면 발령일 전날까지 정보보안팀에 알려야 하며, 정보보안팀은 퇴직자의 "
     "계정을 퇴직일 당일에 삭제한다."),
    (HWPX, "ko", "챗GPT 같은 데 우리 소스코드 붙여넣고 물어봐도 돼?", "입력하여서는 아니 된다", [], "제12조",
     "② 생성형 인공지능 서비스에는 사내한정 이상 등급의 자료, 고객 정보 및 소스코드를 입력하여서는 아니 된다."),
    (HWPX, "ko", "신입은 보안교육 언제까지 들어야 하나요?", "입사일부터 1개월 이내", [], "제16조",
     "② 신규 입사자는 입사일부터 1개월 이내에 정보보안 기본교육을 이수하고 보안서약서를 제출하여야 한다."),
    (HWPX, "ko", "대외비 문서는 몇 년 동안 보관해야 돼?", "10년", [], B1,
     "대외비 고객사 납품 사양서, 시험 성적서, 인사평가 자료 관련 부서 부서장 승인 후 허용 부서장 및 정보보안팀장 승인 10년"),
    (HWPX, "ko", "랜섬웨어 걸리면 보안책임자한테 몇 시간 안에 보고가 올라가야 하나요?", "인지 후 2시간 이내", [], B2,
     "악성코드 감염 랜섬웨어, 바이러스 감염 인지 후 2시간 이내 감염 PC 네트워크 분리, 전체 백신 검사"),
    (HWPX, "ko", "예전에 등록해 둔 그냥 USB는 언제까지 쓸 수 있어요?", "2025년 12월 31일까지", [], "부칙",
     "② (보안 USB에 관한 경과조치) 이 지침 시행 전에 등록한 일반 USB 메모리는 2025년 12월 31일까지 사용할 수 있다."),
    (HWPX, "en_about_ko", "When we send design drawings to a supplier through the secure file transfer system, "
     "for how many days can they open the files?", "7일", [], "제10조",
     "② 고객사나 협력업체에 설계도면을 보낼 때에는 회사가 지정한 보안 파일전송 시스템을 이용하여야 하며, 보낸 파일의 열람 "
     "기간은 7일로 제한한다."),
    # ---- HWP: 연구개발비 집행 지침 (재단법인 한누리소재기술원) ----------------------------------------------
    (HWP, "ko", "연구비 법카로 긁고 나서 며칠 안에 증빙 올려야 돼요?", "결제일부터 7일 이내", [], "6. 연구비카드 사용",
     "다. 연구비카드로 결제한 사람은 결제일부터 7일 이내에 통합연구관리시스템에 사용 내역과 증빙을 등록하여야 한다."),
    (HWP, "ko", "과제 회의하고 밥 먹으면 한 사람당 얼마까지 쓸 수 있어?", "1인당 1회 4만원", [], "7. 회의비 및 식비",
     "가. 회의비는 과제 관련 회의에 참석한 사람의 식대와 다과비로 쓸 수 있으며, 1인당 1회 4만원을 넘을 수 없다."),
    (HWP, "ko", "야근하면 저녁값 얼마까지 연구비로 처리되나요?", "1인당 1식 12,000원 이내", [], "7. 회의비 및 식비",
     "다. 평일 오후 8시 이후까지 연구를 하거나 휴일에 연구를 한 경우에는 1인당 1식 12,000원 이내에서 식비를 집행할 수 있다."),
    (HWP, "ko", "연구수당은 인건비의 몇 퍼센트까지 잡을 수 있어요?", "인건비의 20% 이내", [], "4. 비목별 계상 기준",
     "연구수당 참여연구원의 연구 성과에 대한 보상 인건비의 20% 이내"),
    (HWP, "ko", "3천만원짜리 구매 건은 결재 누가 해요?", "연구부원장", [], "10. 결재 및 전결",
     "1천만원 이상 5천만원 미만 연구부원장 재무회계팀에 구매계약 의뢰"),
    (HWP, "ko", "외부 교수님한테 자문 받으면 하루에 최대 얼마까지 드릴 수 있어?", "50만원", [], "11. 외부 전문가 활용",
     "나. 자문료는 1회 2시간 기준 30만원으로 하며, 같은 사람에게 하루에 지급하는 자문료는 50만원을 넘을 수 없다."),
    (HWP, "ko", "이 지침 나오기 전에 협약한 과제도 회의비 4만원까지 써도 되나요?", "종전 기준(1인당 1회 3만원)", [], "부칙",
     "2. (경과조치) 이 지침 시행 전에 협약을 체결한 과제의 회의비 한도는 종전 기준(1인당 1회 3만원)에 따른다."),
    (HWP, "en_about_ko", "Up to what share of the direct costs can be budgeted for research subcontracted to outside "
     "institutions?", "직접비의 40% 이내", [], "4. 비목별 계상 기준",
     "위탁연구개발비 외부 기관에 맡기는 연구의 비용 직접비의 40% 이내"),
    # ---- Korean scan: 원격근무 운영규정 (주식회사 다온씨앤에스), 2 pages ------------------------------------------
    (SCAN, "ko", "입사하고 얼마나 지나야 재택 신청할 수 있어요?", "입사 후 3개월이 지난", [1], None,
     "제3조(대상) ① 입사 후 3개월이 지난 정규직 임직원은 원격근무를 신청할 수 있다."),
    (SCAN, "ko", "정기 재택은 일주일에 며칠까지 돼요?", "주 2일 이내", [1], None,
     "정기형 주 2일 이내 전월 25일까지 부서장"),
    (SCAN, "ko", "내일 갑자기 재택하고 싶으면 언제까지 신청해야 돼?", "사용 전날 18시까지", [1], None,
     "수시형 월 4일 이내 사용 전날 18시까지 팀장"),
    (SCAN, "ko", "재택하는 날 카페 가서 일해도 되나요?", "카페 등 불특정 다수가 이용하는 장소에서는 할 수 없다", [1], None,
     "제7조(근무 장소) ① 원격근무는 신청서에 적은 장소에서 하여야 하며, 카페 등 불특정 다수가 이용하는 장소에서는 할 수 없다."),
    (SCAN, "ko", "재택하면 통신비 따로 나와? 얼마야?", "월 3만원", [2], None,
     "제9조(지원) ① 회사는 원격근무를 한 달에 1일 이상 한 임직원에게 통신비로 월 3만원을 급여와 함께 지급한다."),
    (SCAN, "ko", "재택날인데 부서장이 출근하라고 하면 언제까지 알려줘야 하는 거예요?", "전날 17시까지", [2], None,
     "제10조(출근 명령) 부서장은 긴급한 업무, 장애 대응 또는 대면 회의가 필요하면 원격근무일에도 출근을 명할 수 있으며, "
     "이 경우 전날 17시까지 알리는 것을 원칙으로 한다."),
    (SCAN, "en_about_ko", "When working from home, how quickly do I have to reply to work messages?", "30분 이내", [1], None,
     "④ 원격근무자는 근무시간 중 사내 메신저 접속 상태를 유지하고, 업무 연락에는 30분 이내에 응답하여야 한다."),
    (SCAN, "en_about_ko", "Remote-work schedules approved before the September 2025 revision follow the old rules "
     "until when?", "2025년 9월 30일까지", [2], None,
     "② (경과조치) 이 규정 시행 당시 이미 승인된 원격근무 일정은 2025년 9월 30일까지 종전의 규정에 따른다."),
    # ---- DOCX: 2026년 평택 물류센터 자동화 구축 사업계획서 (주식회사 한결정밀) ----------------------------------
    (DOCX, "ko", "평택 물류센터 자동화 총사업비 얼마로 올리는 거야?", "6,200백만원", [], "10. 요청 사항",
     "물류혁신TF는 투자심의위원회에 총사업비 6,200백만원의 투자 승인을 요청한다."),
    (DOCX, "ko", "보조금은 얼마나 받을 계획이에요?", "1,860백만원", [], "5. 소요 예산",
     "재원은 자체 자금 4,340백만원(70%)과 경기도 스마트물류 전환 지원사업 보조금 1,860백만원(30%)으로 마련한다."),
    (DOCX, "ko", "시범운영은 언제부터 언제까지 해요?", "2026년 9월 ~ 10월", [], "4. 추진 일정",
     "3단계 시범운영 2026년 9월 ~ 10월 기존 방식과 병행 운영, 안정화 평택 물류센터"),
    (DOCX, "ko", "자동화되면 피킹하던 사람들 구조조정 되는 거예요?", "인력 감축 없이 추진한다", [],
     "3.4 작업자 교육 및 직무 전환", "이번 사업은 인력 감축 없이 추진한다."),
    (DOCX, "ko", "2024년에 외부 창고 임차료 얼마 나갔어?", "340", [], "2. 현황 및 문제점",
     "외부 창고 임차료(백만원) 180 260 340"),
    (DOCX, "ko", "투심위에는 언제 올라가요?", "2025년 12월 9일", [], "8. 향후 일정",
     "투자심의위원회 상정: 2025년 12월 9일"),
    (DOCX, "en_about_ko", "How many storage cells will the new automated warehouse have?", "4,800개", [],
     "3.1 자동 창고(AS/RS) 도입",
     "보관 셀은 모두 4,800개이며, 회전율이 높은 상위 1,200개 품목을 자동 창고로 옮긴다."),
    (DOCX, "en_about_ko", "If the equipment is delivered late, what penalty does the contractor pay per day?",
     "계약금액의 0.1%", [], "7. 위험 요인 및 대응",
     "설비 납기 지연: 시공사 계약서에 지연 1일당 계약금액의 0.1%를 지체상금으로 부과하는 조항을 둔다."),
]

# near misses: (file, lang, question) — the asked-for fact is in none of the four documents
N = [
    (HWPX, "ko", "보안 규정 어기면 감봉은 몇 퍼센트까지 먹어요?"),
    (HWPX, "en", "How much does an employee have to pay the company for losing a secure USB drive?"),
    (HWP, "ko", "간접비는 직접비의 몇 %로 잡으면 돼요?"),
    (HWP, "ko", "연구비카드 한 달 사용 한도가 얼마야?"),
    (SCAN, "ko", "재택하면 전기요금도 지원해 주나요? 얼마 나와요?"),
    (SCAN, "ko", "거점오피스는 어디어디에 있어?"),
    (DOCX, "ko", "AMR 로봇은 어느 업체 걸로 들여오기로 했어요?"),
    (DOCX, "en", "What is the annual rent of the Osan external warehouse alone?"),
]


def main():
    rows = []
    order = []
    for f, *_ in A:
        if f not in order:
            order.append(f)
    for f, kind, q, a, pages, loc, ev in A:
        lang = "en" if kind in ("en", "en_about_ko") else "ko"
        rows.append({"file": f, "question": q, "answer": a, "pages": pages, "location": loc, "evidence": ev,
                     "kind": kind, "lang": lang})
    for f, lang, q in N:
        rows.append({"file": f, "question": q, "answer": None, "pages": [], "location": None, "evidence": None,
                     "kind": "near_miss", "lang": lang})
    rows.sort(key=lambda r: order.index(r["file"]))  # stable: each file's answerable items, then its near misses
    out = Path(__file__).resolve().parent.parent / "rag_formats_dev_ko.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for i, r in enumerate(rows, 1):
            fh.write(json.dumps({"id": f"fdk-{i:03d}", **r}, ensure_ascii=False) + "\n")
    print(out, len(rows))


if __name__ == "__main__":
    main()
